"""The Novo Interactions API: models, the resolve rules, errors and the async client."""
