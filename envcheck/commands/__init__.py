"""One module per command (or command group); cli.py registers them."""
