"""The result model, the spec's metrics, cost sheets and report renderers."""
