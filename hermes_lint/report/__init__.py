"""Report: diagnostics as text, JSON, SARIF and GitHub annotations; what a terminal shows around
them; the generated rule pages."""
