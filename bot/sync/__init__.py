"""The sync engine: poll Novo, post what is new once, keep every message true."""
