"""Lucky 13's tests: its engine (exact chances checked against ``reference``), its creation, its contests,
its calculator, its rest and recovery, its session."""
