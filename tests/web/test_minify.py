"""The minifier of our own CSS and JS (web/minify.py): each rule, and every file of static/ valid once minified."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from web.minify import minify, minify_css, minify_js

STATIC = Path(__file__).resolve().parent.parent.parent / "static"


def test_css_loses_comments_and_the_whitespace_around_braces_semicolons_commas_and_after_colons() -> None:
    source = "/* note */\n.a ,\n.b > .c {\n  color : red ;\n  margin: 0 auto;\n}\n"
    assert minify_css(source) == ".a,.b>.c{color :red;margin:0 auto}\n"


def test_css_keeps_strings_whole_and_the_space_that_means_a_descendant_or_a_sum() -> None:
    source = '.a :focus { content: "  /* x */ ;  "; width: calc(1rem + 2px); font-family: x, "Segoe UI"; }'
    assert minify_css(source) == '.a :focus{content:"  /* x */ ;  ";width:calc(1rem + 2px);font-family:x,"Segoe UI"}\n'


def test_css_keeps_the_space_between_words_of_a_value_and_in_media_queries() -> None:
    source = "@media (min-width: 40rem) and (max-width: 60rem) {\n  .a { border: 1px   solid red; }\n}\n"
    assert minify_css(source) == "@media (min-width:40rem) and (max-width:60rem){.a{border:1px solid red}}\n"


def test_js_loses_indentation_blank_lines_and_whole_line_comments_but_keeps_each_line_break() -> None:
    source = '// head\n/* block\n   more */\nfunction f() {\n\n    // inside\n    return "a // b";  \n}\n'
    assert minify_js(source) == 'function f() {\nreturn "a // b";\n}\n'


def test_js_keeps_comments_that_end_a_line_of_code_and_the_code_after_a_block_comment() -> None:
    source = "  /* a */ x = 1; // why\n  y = 2;\n"
    assert minify_js(source) == "x = 1; // why\ny = 2;\n"


def test_js_with_a_template_literal_or_a_string_over_a_line_break_is_left_whole() -> None:
    template = "const t = `line\n    // kept\n`;\n"
    continued = "const s = 'a\\\n    // kept';\n"
    assert minify_js(template) == template
    assert minify_js(continued) == continued


def test_only_css_and_our_own_unminified_js_are_minified() -> None:
    assert minify("x.min.js", "  a();\n") is None
    assert minify("x.svg", "<svg/>") is None
    assert minify("x.js", "  a();\n") == "a();\n"


@pytest.mark.parametrize("path", sorted(STATIC.rglob("*.css")) + sorted(STATIC.rglob("*.js")), ids=str)
def test_every_static_file_shrinks_and_minifies_to_itself_again(path: Path) -> None:
    text = path.read_text()
    smaller = minify(path.name, text)
    assert smaller is not None
    assert len(smaller) < len(text)
    assert minify(path.name, smaller) == smaller  # collecting twice gives the same file, so the same hash


@pytest.mark.parametrize("path", sorted(STATIC.rglob("*.js")), ids=str)
def test_node_accepts_every_minified_script(path: Path, tmp_path: Path) -> None:
    node = shutil.which("node")
    assert node, "node is needed to check the minified scripts"
    minified = tmp_path / path.name
    minified.write_text(minify_js(path.read_text()))
    result = subprocess.run([node, "--check", str(minified)], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
