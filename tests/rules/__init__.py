"""Tests of the dice engine: no database, exact chances checked against independent computations."""
