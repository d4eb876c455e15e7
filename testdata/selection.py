"""Selection strings as the fixture generators and the client tests use them.

One place for the parsing every `generate_*.py` beside this file and tests/python need: a zaro /
numpy selection string (`"0:4, 2, ::3"`, empty for everything) as a numpy index, or, given the
array's shape, as an index tensorstore accepts (tensorstore has no negative indices).
Generators import it with `sys.path.insert(0, str(HERE.parent))`.

An index list in brackets (`"[0,5,2], :"`) has numpy's outer meaning (`np.ix_`): `to_index` gives it
as a Python list, `outer(a, index)` applies such an index to a numpy array (tensorstore: `t.oindex`).
"""
import numpy as np


def entries(sel):
    """The comma-separated entries of `sel`; commas inside brackets do not separate."""
    out, depth, cur = [], 0, ""
    for ch in sel:
        depth += ch == "["
        depth -= ch == "]"
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    return out


def has_lists(sel):
    """True when the selection holds an index list (outer indexing)."""
    return "[" in sel


def outer(a, index):
    """numpy's outer indexing (as `a[np.ix_(...)]`) of `index` from `to_index`: each list and each
    slice independently, an integer dropping its dimension."""
    index = tuple(index)
    if Ellipsis in index:
        at = index.index(Ellipsis)
        index = index[:at] + (slice(None),) * (a.ndim - len(index) + 1) + index[at + 1:]
    index = index + (slice(None),) * (a.ndim - len(index))
    arrays, dropped = [], []
    for d, (x, n) in enumerate(zip(index, a.shape)):
        if isinstance(x, slice):
            arrays.append(np.arange(n)[x])
        elif isinstance(x, list):
            arrays.append(np.asarray(x, dtype=np.intp))
        else:
            arrays.append(np.asarray([x], dtype=np.intp))
            dropped.append(d)
    return a[np.ix_(*arrays)].reshape([len(x) for d, x in enumerate(arrays) if d not in dropped])


def to_index(sel, shape=None):
    """The numpy index of `sel`; with `shape`, negative starts, stops and indices made positive
    (and `...` spelled out as `:`). An index list is a Python list (see `outer`)."""
    if not sel.strip():
        return ()
    parts = [p.strip() for p in entries(sel)]
    if shape is not None and "..." in parts:
        at = parts.index("...")
        parts[at:at + 1] = [":"] * (len(shape) - len(parts) + 1)
    out = []
    for d, part in enumerate(parts):
        n = None if shape is None else shape[d]
        if part == "...":
            out.append(Ellipsis)
        elif part.startswith("["):
            items = [int(i) for i in part[1:-1].split(",") if i.strip()]
            out.append([i + n if n is not None and i < 0 else i for i in items])
        elif ":" in part:
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
