module github.com/example-org/orders

go 1.22

require (
	github.com/grpc-ecosystern/go-grpc-middleware/v2 v2.1.0
	github.com/prometheus/client_golang v1.19.1
	go.uber.org/zap v1.27.0
	google.golang.org/grpc v1.64.0
	google.golang.org/protobuf v1.34.2
)
