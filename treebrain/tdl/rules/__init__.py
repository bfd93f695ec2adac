"""The rule-based validators: syntax, safety, consistency and domain rules, each its own function."""
