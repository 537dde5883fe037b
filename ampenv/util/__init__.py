"""Small shared mechanisms: atomic writes, safe removal, bounded reads, redaction, formats."""
