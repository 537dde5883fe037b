"""The engine: the model of results and reports, the plugin API, config, registry, runner
and session."""
