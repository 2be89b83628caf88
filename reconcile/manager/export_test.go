package manager

// MainWith is mainWith for the tests.
var MainWith = mainWith
