// Package prototype makes empty objects of a prototype object's type, for the constructors that take an object
// the way controller-runtime's builder.For does.
package prototype
