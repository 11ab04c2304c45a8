package main

import "example.com/mytool/cmd"

func main() {
	cmd.Execute()
}
