"""D13 of When Shadows Rise: its engine (no database)."""
