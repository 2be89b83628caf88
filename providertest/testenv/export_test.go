package testenv

// CAPICRDDirIn exposes capiCRDDirIn to the tests.
var CAPICRDDirIn = capiCRDDirIn
