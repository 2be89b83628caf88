package one
