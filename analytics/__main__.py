"""`python -m analytics` runs the command-line interface."""

from analytics.cli import main

if __name__ == "__main__":
    main()
