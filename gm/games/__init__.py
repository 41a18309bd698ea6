"""The games gm hosts, each in its own package beside the kernel."""
