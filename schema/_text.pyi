def actions_text(codes: tuple[str, ...], head: list[str], meld_start: str,
                 blocks: list[tuple[int, list[int], list[tuple[int, int, int]]]],
                 wilds: list[tuple[int, ...]], ends: list[str], tail: list[str],
                 discard_start: str, discards: list[int], discard_end: str) -> str: ...
