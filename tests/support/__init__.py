"""What the tests share: builders of organizations and frames, servers on loopback, the
headless dashboard, the browser, and the clock."""
