"""Canasta Referee's service layer: command line now, HTTP later."""
