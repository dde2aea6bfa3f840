"""The chance interface: ``python -m rules chance`` (rules README, "The chance interface")."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from rules.__main__ import EXIT_INVALID, MAX_BATCH, MAX_SPEC_BYTES, main
from tests.systems.lucky13.reference import exploding_check

ROOT = Path(__file__).resolve().parents[2]

CHECK = {
    "system": "lucky13",
    "roll": "check",
    "ability": "d10",
    "skill": "d12",
    "difficulty": "d6",
    "ability_steps": 0,
    "skill_steps": 0,
    "ability_roll": "normal",
    "explosion": "none",
}
OPPOSED = {
    "system": "lucky13",
    "roll": "opposed",
    "attacker": ["d8", "d6"],
    "defender": ["d6", "d6"],
    "weapon_die": "d6",
    "explosion": "none",
}
CINEMATIC = {
    "system": "lucky13",
    "roll": "check",
    "ability": "d12+d4",
    "skill": "d8",
    "difficulty": "none",
    "ability_roll": "background",
    "explosion": "cinematic",
}


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rules", *args],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_chance_prints_one_json_object() -> None:
    result = run("chance", json.dumps(CHECK))

    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert result.stdout.count("\n") == 1
    out = json.loads(result.stdout)
    assert out == {"p_success": "13/18", "p_dilemma": "5/16", "p_success_with_dilemma": "7/48"}


def test_chance_of_a_stepped_ability_rolled_twice_without_end_is_exact() -> None:
    # Only the kept roll's 1s count, even when both rolls explode past 13 (rules README,
    # "Dilemmas come only from dice that count"); the reference judges every pair by the rule.
    result = run("chance", json.dumps(CINEMATIC))

    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    expected = exploding_check("d12+d4", "d8", "heroic", "background", "cinematic")
    assert tuple(Fraction(out[k]) for k in ("p_success", "p_dilemma", "p_success_with_dilemma")) == expected


def test_chance_of_an_opposed_roll() -> None:
    result = run("chance", json.dumps(OPPOSED))

    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["p_attacker_wins"] == "119/216"
    assert out["p_draw"] == "19/192"
    assert out["damage_given_hit"]["2"] == "11/357"
    assert out["exact"] is True
    assert set(out) == {
        "p_attacker_wins",
        "p_draw",
        "p_defender_wins",
        "p_attacker_prevails",
        "p_defender_prevails",
        "p_attacker_dilemma",
        "p_defender_dilemma",
        "damage_given_hit",
        "expected_damage_given_hit",
        "exact",
    }


def test_batch_writes_one_result_per_line_in_order(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    specs = [CHECK, OPPOSED, CINEMATIC, {**CHECK, "ability": "d4", "difficulty": "heroic"}]
    batch = tmp_path / "specs.jsonl"
    # Blank lines are skipped.
    batch.write_text(
        "\n".join(json.dumps(s) for s in specs[:2]) + "\n\n" + "\n".join(json.dumps(s) for s in specs[2:]) + "\n",
        encoding="utf-8",
    )

    result = run("chance", "--batch", str(batch))

    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == len(specs)
    for line, spec in zip(lines, specs, strict=True):
        assert main(["chance", json.dumps(spec)]) == 0
        assert json.loads(line) == json.loads(capsys.readouterr().out)


def test_batch_from_stdin() -> None:
    result = run("chance", "--batch", "-", stdin=json.dumps(CHECK) + "\n" + json.dumps(OPPOSED) + "\n")

    assert result.returncode == 0, result.stderr
    first, second = (json.loads(line) for line in result.stdout.splitlines())
    assert first["p_success"] == "13/18"
    assert second["p_attacker_wins"] == "119/216"


def test_a_batch_of_the_most_specs_allowed_is_computed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    batch = tmp_path / "specs.jsonl"
    batch.write_text((json.dumps(CHECK) + "\n") * MAX_BATCH, encoding="utf-8")
    assert main(["chance", "--batch", str(batch)]) == 0
    assert len(capsys.readouterr().out.splitlines()) == MAX_BATCH


def test_a_batch_too_large_is_refused_before_anything_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    batch = tmp_path / "specs.jsonl"
    batch.write_text((json.dumps(CHECK) + "\n") * (MAX_BATCH + 1), encoding="utf-8")
    assert main(["chance", "--batch", str(batch)]) == EXIT_INVALID
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"error: --batch: a batch holds at most {MAX_BATCH} specs; split it into smaller files\n"


def test_a_line_too_long_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    batch = tmp_path / "specs.jsonl"
    padded = json.dumps(CHECK)[:-1] + "," + " " * MAX_SPEC_BYTES + '"x": 1}'
    batch.write_text(json.dumps(CHECK) + "\n" + padded + "\n", encoding="utf-8")
    assert main(["chance", "--batch", str(batch)]) == EXIT_INVALID
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"error: line 2: spec: is at most {MAX_SPEC_BYTES} bytes long\n"


def test_an_empty_batch_prints_nothing(tmp_path: Path) -> None:
    batch = tmp_path / "empty.jsonl"
    batch.write_text("", encoding="utf-8")

    result = run("chance", "--batch", str(batch))

    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


INVALID = [
    pytest.param({**CHECK, "ability": "d7"}, "ability", id="bad-die"),
    pytest.param({**CHECK, "skill": "d4+d12"}, "skill", id="bad-stepped-die"),
    pytest.param({**CHECK, "ability": 8}, "ability", id="die-not-text"),
    pytest.param({**CHECK, "luck": 3}, "luck", id="unknown-field"),
    pytest.param({**CHECK, "ability_steps": "2"}, "ability_steps", id="steps-as-text"),
    pytest.param({**CHECK, "skill_steps": 1.5}, "skill_steps", id="steps-fractional"),
    pytest.param({**CHECK, "ability_steps": True}, "ability_steps", id="steps-boolean"),
    pytest.param({**CHECK, "ability_steps": 41}, "ability_steps", id="steps-too-many"),
    pytest.param({**CHECK, "ability": "d12+d12+d12+d12+d12", "ability_steps": 1}, "ability_steps", id="past-top"),
    pytest.param({**CHECK, "skill": "d12+d12+d12+d12+d12+d4"}, "skill", id="die-too-large"),
    pytest.param({**CHECK, "ability": "d012"}, "ability", id="leading-zero"),
    pytest.param({**CHECK, "ability": ""}, "ability", id="empty-label"),
    pytest.param({**CHECK, "ability": "d" + "9" * 5000}, "ability", id="huge-die-number"),
    pytest.param({key: value for key, value in CHECK.items() if key != "difficulty"}, "difficulty", id="no-difficulty"),
    pytest.param({key: value for key, value in OPPOSED.items() if key != "weapon_die"}, "weapon_die", id="no-weapon"),
    pytest.param({**OPPOSED, "attacker": ["d12+d12+d12+d12+d12"] * 3}, "attacker", id="too-many-dice-rolled"),
    pytest.param({**CHECK, "system": "gurps"}, "system", id="unknown-system"),
    pytest.param({**CHECK, "roll": "damage"}, "roll", id="unknown-roll"),
    pytest.param({**CHECK, "roll": ["check"]}, "roll", id="roll-not-text"),
    pytest.param({**CHECK, "difficulty": "impossible"}, "difficulty", id="unknown-difficulty"),
    pytest.param({**CHECK, "explosion": "wild"}, "explosion", id="unknown-explosion"),
    pytest.param({**CHECK, "ability_roll": "lucky"}, "ability_roll", id="unknown-ability-roll"),
    pytest.param({**CHECK, "distribution": "yes"}, "distribution", id="distribution-not-boolean"),
    pytest.param({key: value for key, value in CHECK.items() if key != "ability"}, "ability", id="missing-ability"),
    pytest.param({**OPPOSED, "attacker": ["d8", "d5"]}, "attacker[1]", id="opposed-bad-die"),
    pytest.param({**OPPOSED, "defender": []}, "defender", id="opposed-empty-side"),
    pytest.param({**OPPOSED, "defender": "d6"}, "defender", id="opposed-side-not-a-list"),
    pytest.param({**OPPOSED, "weapon_die": "sword"}, "weapon_die", id="opposed-bad-weapon"),
    pytest.param({**OPPOSED, "attacker": ["d6"] * 9}, "attacker", id="opposed-pool-too-big"),
    pytest.param({**OPPOSED, "ability": "d6"}, "ability", id="opposed-unknown-field"),
    pytest.param(["d6"], "spec", id="not-an-object"),
]


def assert_one_line_error(result: subprocess.CompletedProcess[str], field: str) -> None:
    assert result.returncode == EXIT_INVALID == 2
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert f"{field}:" in lines[0]
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(("spec", "field"), INVALID)
def test_an_invalid_spec_exits_2_naming_the_field(spec: object, field: str) -> None:
    assert_one_line_error(run("chance", json.dumps(spec)), field)


def test_invalid_json_exits_2() -> None:
    assert_one_line_error(run("chance", '{"ability": "d8",'), "spec")


def test_a_bad_batch_line_exits_2_naming_the_line_and_field(tmp_path: Path) -> None:
    batch = tmp_path / "specs.jsonl"
    batch.write_text(json.dumps(CHECK) + "\n" + json.dumps({**CHECK, "skill": "d13"}) + "\n", encoding="utf-8")

    result = run("chance", "--batch", str(batch))

    assert_one_line_error(result, "skill")
    assert "line 2" in result.stderr


def test_a_batch_line_of_bad_json_exits_2(tmp_path: Path) -> None:
    batch = tmp_path / "specs.jsonl"
    batch.write_text(json.dumps(CHECK) + "\nnot json\n", encoding="utf-8")

    result = run("chance", "--batch", str(batch))

    assert_one_line_error(result, "spec")
    assert "line 2" in result.stderr


def test_a_missing_batch_file_exits_2(tmp_path: Path) -> None:
    assert_one_line_error(run("chance", "--batch", str(tmp_path / "absent.jsonl")), "--batch")


@pytest.mark.parametrize(
    ("spec", "field"),
    [
        pytest.param({**CHECK, "ability": "d7\n"}, "ability", id="label-with-a-trailing-newline"),
        pytest.param({**OPPOSED, "attacker": ["d8", "x\ny"]}, "attacker[1]", id="opposed-label-with-a-newline"),
        pytest.param({**CHECK, "bad\nfield": 1}, "bad", id="unknown-field-with-a-newline"),
    ],
)
def test_an_error_stays_on_one_line_whatever_the_spec_holds(spec: dict, field: str) -> None:
    # The bad value is part of the message; a newline inside it must not split the error over two lines.
    result = run("chance", json.dumps(spec))

    assert result.returncode == EXIT_INVALID
    assert result.stdout == ""
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert field in result.stderr


def test_a_batch_file_that_is_not_utf8_exits_2(tmp_path: Path) -> None:
    batch = tmp_path / "specs.jsonl"
    batch.write_bytes(json.dumps(CHECK).encode() + b'\n{"ability": "d8\xff", "skill": "d6"}\n')

    result = run("chance", "--batch", str(batch))

    assert_one_line_error(result, "line 2")


def test_json_nested_too_deeply_exits_2(tmp_path: Path) -> None:
    batch = tmp_path / "specs.jsonl"
    batch.write_text("[" * 4_000 + "]" * 4_000 + "\n", encoding="utf-8")

    result = run("chance", "--batch", str(batch))

    assert_one_line_error(result, "spec")


# --- In process ------------------------------------------------------------------------------


def test_main_in_process(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["chance", json.dumps(CHECK)]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["p_dilemma"] == "5/16"
    assert err == ""


@pytest.mark.parametrize(("spec", "field"), INVALID)
def test_main_in_process_refuses_invalid_specs(spec: object, field: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["chance", json.dumps(spec)]) == EXIT_INVALID
    out, err = capsys.readouterr()
    assert out == ""
    assert len(err.splitlines()) == 1
    assert f"{field}:" in err


def test_main_in_process_batch(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    batch = tmp_path / "specs.jsonl"
    batch.write_text(json.dumps(OPPOSED) + "\n" + json.dumps(CHECK) + "\n", encoding="utf-8")

    assert main(["chance", "--batch", str(batch)]) == 0
    first, second = (json.loads(line) for line in capsys.readouterr().out.splitlines())
    assert first["p_draw"] == "19/192"
    assert second["p_success"] == "13/18"


def test_omitted_fields_take_their_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["chance", json.dumps({"ability": "d8", "skill": "d6", "difficulty": "moderate"})]) == 0
    bare = json.loads(capsys.readouterr().out)
    full = {
        "system": "lucky13",
        "roll": "check",
        "ability": "d8",
        "skill": "d6",
        "difficulty": "moderate",
        "ability_steps": 0,
        "skill_steps": 0,
        "ability_roll": "normal",
        "explosion": "cinematic",
    }
    assert main(["chance", json.dumps(full)]) == 0
    assert json.loads(capsys.readouterr().out) == bare


def test_a_number_too_long_to_read_exits_2() -> None:
    text = '{"ability": "d8", "skill": "d6", "difficulty": "easy", "ability_steps": ' + "9" * 5000 + "}"
    assert_one_line_error(run("chance", text), "spec")
