#!/usr/bin/env python3
"""A small Kimble bot: capture if possible, else flee danger, else advance.

Run by the judge as `python3 bot.py OPPONENTS SEED` in its own folder
(see meta).  It speaks the client side of the protocol on stdin/stdout:
one start line v001XYZ, then TOKEN+INDEX for every decision.  Standard
library only; docs/spec.md describes everything it relies on.
"""
import sys

TRACK = 28          # ring squares 0..27; A's goal is 28..31
GOAL_END = 31       # the last progress a piece can reach


def start_line(opponents):
    """v001XYZ: 0 absent, 1 easy, 2 any other name (spec: the bot contract)."""
    names = opponents.split(",") if opponents else []
    names += [""] * (3 - len(names))
    digits = ""
    for name in names[:3]:
        digits += "0" if name in ("", "-", "none") else "1" if name == "easy" else "2"
    return "v001" + digits


def my_pieces(board):
    """A's progress values, foremost first, home pieces (None) last."""
    on_board = [i for i in range(32) if board[i] == "A"]
    on_board.sort(reverse=True)
    return on_board + [None] * (4 - len(on_board))


def threats(board):
    """Ring squares an opponent piece can reach with its next roll."""
    hit = set()
    for seat, letter in enumerate("BCD"):
        start = 7 * (seat + 1)
        pieces = 0
        for square in range(TRACK):
            if board[square] != letter:
                continue
            pieces += 1
            progress = (square - start) % TRACK
            for die in range(1, 7):
                if progress + die < TRACK:     # beyond 27 it enters its goal
                    hit.add((start + progress + die) % TRACK)
        goal = board[28 + 4 * (seat + 1):32 + 4 * (seat + 1)]
        if pieces + goal.count(letter) < 4:    # a home piece can leave with a 6
            hit.add(start)
    return hit


def legal_moves(board, die):
    """{index: (from, to)} for A's legal moves; from is None for home."""
    pieces = my_pieces(board)
    moves = {}
    for index, progress in enumerate(pieces):
        if progress is None:
            if die == 6 and pieces.index(None) == index and board[0] != "A":
                moves[index] = (None, 0)
            continue
        target = progress + die
        if target <= GOAL_END and board[target] != "A":
            moves[index] = (progress, target)
    return moves


def score(board, move, danger):
    """Bigger is better: captures, then safety, then progress."""
    source, target = move
    value = 0.0
    if target < TRACK and board[target] in "BCD":
        value += 100 + target                   # capture, the further the better
    if target >= TRACK and (source is None or source < TRACK):
        value += 40                             # into the goal: safe for ever
    if source is None:
        value += 30                             # a new piece on the board
    if source is not None and source < TRACK and source in danger:
        value += 20 + source                    # escape a threat
    if target < TRACK and target in danger:
        value -= 35 + target                    # do not walk into one
    value += (source if source is not None else 0) / 10.0
    return value


def choose(board, die):
    moves = legal_moves(board, die)
    if not moves:
        return 0
    danger = threats(board)
    return max(moves, key=lambda i: (score(board, moves[i], danger), -i))


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: bot.py OPPONENTS SEED")
    out = sys.stdout
    out.write(start_line(sys.argv[1]) + "\n")
    out.flush()
    token, last = None, None
    for raw in sys.stdin:
        line = raw.rstrip("\r\n")
        if line.startswith("t") and len(line) == 65:
            token = line
        elif line.startswith("Voittaja") or line.startswith("Virhe"):
            return 0 if line.startswith("Voittaja") else 3
        elif line == "END":
            board, seat, die = last[:44], last[44], int(last[45])
            if seat == "A":
                out.write("%s%d\n" % (token, choose(board, die)))
                out.flush()
        elif len(line) == 46:
            last = line
    return 0


if __name__ == "__main__":
    sys.exit(main())
