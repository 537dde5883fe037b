"""What ampenv knows, as data with sources."""
