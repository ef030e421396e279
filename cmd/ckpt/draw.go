//go:build !lite

package main

import _ "github.com/ckpt-hpc/ckpt/plot/draw"
