"""The read-only public web archive of finished games (``gm serve --http``):
`gm.web.pages` turns games on disk into pages, `gm.web.site` serves them."""
