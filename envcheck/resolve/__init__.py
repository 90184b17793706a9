"""The resolver: which framework builds work on a target machine, and how to install them."""
