"""D13 of When Shadows Rise."""
