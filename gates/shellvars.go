package gates

// varTable holds the variables a command sets. Most commands set a
// handful, and the analysis reads and sets them at every assignment,
// branch and undo (a long script, hundreds of times): a smallMemo keeps up
// to smallMemoSlice of them in a list searched in order, which costs a
// length comparison per entry where a map hashes the name at every
// access, and past that a map, so that a script setting hundreds stays
// linear. The zero value is empty.
type varTable = smallMemo[string, varVal]
