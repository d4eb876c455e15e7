"""Selection strings as the fixture generators and the client tests use them.

One place for the parsing every `generate_*.py` beside this file and tests/python need: a zaro /
numpy selection string (`"0:4, 2, ::3"`, empty for everything) as a numpy index, or, given the
array's shape, as an index tensorstore accepts (tensorstore has no negative indices).
Generators import it with `sys.path.insert(0, str(HERE.parent))`.
"""


def to_index(sel, shape=None):
    """The numpy index of `sel`; with `shape`, negative starts, stops and indices made positive."""
    if not sel.strip():
        return ()
    out = []
    for d, part in enumerate(sel.split(",")):
        part = part.strip()
        n = None if shape is None else shape[d]
        if ":" in part:
            bits = [int(b) if b.strip() else None for b in part.split(":")]
            bits += [None] * (3 - len(bits))
            start, stop, step = bits
            if n is not None:
                start = None if start is None else (start + n if start < 0 else start)
                stop = None if stop is None else (stop + n if stop < 0 else stop)
            out.append(slice(start, stop, step))
        else:
            i = int(part)
            out.append(i + n if n is not None and i < 0 else i)
    return tuple(out)
