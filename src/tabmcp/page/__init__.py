"""The page as data: captures of the DOM with refs, and the steps performed on it."""
