"""City of Gold tests."""
