"""What ampenv changes on the node: the cleaning of stale caches and old logs (`ampenv clean`,
`doctor --fix`)."""
