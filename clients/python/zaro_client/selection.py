"""Selections written as on zaro's command line ("0:24, [0,90,180], 3"), enough to know their shape.

The server checks and applies selections; the client parses them only to know, before any data
arrives, the shape of the result and where each endpoint's rows go."""


class Selection:
    """Per dimension (start, step, count, dropped), or for an index list (indices, None, count,
    False): numpy's outer meaning, as np.ix_."""

    def __init__(self, dims):
        self.dims = dims

    @staticmethod
    def parse(text, shape):
        entries = split(text)
        if "..." in entries:
            at = entries.index("...")
            entries[at:at + 1] = [":"] * (len(shape) - (len(entries) - 1))
        if len(entries) > len(shape):
            raise ValueError(f"selection '{text}' has {len(entries)} entries but the array has "
                             f"{len(shape)} dimensions")
        entries += [":"] * (len(shape) - len(entries))
        return Selection([_dim(e, n) for e, n in zip(entries, shape)])

    def result_shape(self):
        return [count for _, _, count, dropped in self.dims if not dropped]

    def text(self):
        return ", ".join(format_dim(*d) for d in self.dims)


def split(text):
    """The entries of a selection: its commas outside brackets split it."""
    if not text or not text.strip():
        return []
    entries, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
        elif c == "," and depth == 0:
            entries.append(text[start:i].strip())
            start = i + 1
    entries.append(text[start:].strip())
    return entries


def _dim(entry, size):
    if entry.startswith("["):
        body = entry[1:-1].strip()
        indices = [int(v) for v in body.split(",")] if body else []
        return (indices, None, len(indices), False)
    parts = entry.split(":")
    if len(parts) == 1:
        i = int(parts[0])
        return (i + size if i < 0 else i, 1, 1, True)
    step = int(parts[2]) if len(parts) == 3 and parts[2].strip() else 1
    start = _bound(parts[0], 0, size)
    stop = _bound(parts[1], size, size)
    count = (stop - start + step - 1) // step if stop > start else 0
    return (start, step, count, False)


def _bound(text, default, size):
    if not text.strip():
        return default
    v = int(text)
    return v + size if v < 0 else v


def format_dim(start, step, count, dropped):
    """One dimension in zaro's canonical text: an index, start:stop:step, or an index list."""
    if step is None:
        return "[" + ",".join(str(int(i)) for i in start) + "]"
    if dropped:
        return str(start)
    return f"{start}:{start + count * step - (step - 1 if count else 0)}:{step}"
