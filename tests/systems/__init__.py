"""Each system's own tests, together: its engine, its pages, its API and its session in the browser.

``coin`` is also a system itself, the test-only Coin (``tests.systems.coin.system``).
"""
