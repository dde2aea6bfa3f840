"""D6's tests: its engine (no database), its forms and pages, its encounter, its API, its session."""
