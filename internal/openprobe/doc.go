// Package openprobe tells whether a file or folder can be opened for
// reading, as os.Open would answer (the same *fs.PathError), without
// opening it where the kernel can say (faccessat2), and never blocking on a
// FIFO. validate's integrity checks ask it for every referenced path.
package openprobe
