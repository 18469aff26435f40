"""Canasta Referee: a stateless rules-adjudication service for the Canasta family of card games.

``canasta_referee.engine`` holds the rules (pure Python, standard library only),
``canasta_referee.schema`` the wire models, ``canasta_referee.service`` the HTTP service. Importing
this package loads none of them.
"""

__version__ = "0.1.0"
