"""Reference answers of the book's code exercises, one module per part, each function named
and called as its exercise asks. They are the chapters' solutions (the gated ``{solution}``
cells), kept here for grading; the student edition contains neither."""
