"""The command line of our decoder for the `check_*.py` scripts: `examples/disasm_words.rs` built
by cargo (one line of hex words in, one line of text out, `<none>` where it decodes nothing), or
the binary named by `DISASM_WORDS` (an earlier build, to measure a change against the same words).
"""
import os


def decoder_command(mcpu):
    """The decoder's command line for processor `mcpu`."""
    built = os.environ.get("DISASM_WORDS")
    if built:
        return [built, mcpu]
    return ["cargo", "run", "--release", "-q", "-p", "offload", "--example", "disasm_words", "--", mcpu]
