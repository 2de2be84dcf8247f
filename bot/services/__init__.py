"""Business logic the listeners and scheduled jobs call: deciding, opening forms."""
