// Package testcpu measures the CPU time a test's code takes: its work, which a
// loaded box leaves as it is, where the time on the wall stretches with the load
// (a 200 ms busy loop read 50 ms of its thread's CPU at load 18). Tests bound work
// with it that they bounded with the wall's time.
package testcpu
