package cmd

import (
	"log/slog"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"
)

var cfgFile string

func newRoot(version string) *cobra.Command {
	root := &cobra.Command{
		Use:           "mycli",
		Short:         "mycli does things",
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: false,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			v := viper.GetViper()
			if cfgFile != "" {
				v.SetConfigFile(cfgFile)
			} else {
				home, _ := os.UserConfigDir()
				v.AddConfigPath(home + "/mycli")
				v.SetConfigName("config")
			}
			v.SetEnvPrefix("MYCLI")
			v.SetEnvKeyReplacer(strings.NewReplacer("-", "_"))
			v.AutomaticEnv()
			_ = v.ReadInConfig()
			if err := v.BindPFlags(cmd.Flags()); err != nil {
				return err
			}
			level := slog.LevelInfo
			if v.GetBool("verbose") {
				level = slog.LevelDebug
			}
			slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})))
			return nil
		},
	}
	root.PersistentFlags().StringVar(&cfgFile, "config", "", "config file")
	root.PersistentFlags().BoolP("verbose", "v", false, "verbose logging")
	return root
}

func Execute(version string) error { return newRoot(version).Execute() }
