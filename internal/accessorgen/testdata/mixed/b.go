package two
