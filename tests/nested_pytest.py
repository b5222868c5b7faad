"""The options of a pytest session that a test starts in a temporary folder (the golden plugin's and the sanitizer
option's tests run a user's test file there): no cache provider, and none of the installed plugins such a session
does not use. Importing hypothesis's plugin alone took 0.7 s of a nested session's 1.9 s (issue 20)."""
LEAN_SESSION = ("-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-p", "no:benchmark", "-p", "no:xdist")
