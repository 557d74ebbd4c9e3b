"""The web console: a DynamoDB client in the browser (static files), and its
two endpoints of its own, the live feed (``live``) and parse-without-running
(``parse``). It imports the engine's api and feed, never the server."""
