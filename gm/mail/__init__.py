"""Reading players' mail: what the player wrote, and which mail is automatic."""
