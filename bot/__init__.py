"""novo-slack: puts Novo agents' human-in-the-loop interactions in front of people, in Slack."""

# Between releases `X.Y.Z.devN`, the next release's number marked unreleased: a build of
# main is never mistaken for the last release. A release sets it to `X.Y.Z`, dates the
# CHANGELOG's section, and is tagged `vX.Y.Z` (docs/deploy.md, "Releasing").
__version__ = "0.3.0.dev0"
