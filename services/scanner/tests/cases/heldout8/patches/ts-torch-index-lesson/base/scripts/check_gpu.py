import torch

print("torch", torch.__version__, "cuda build", torch.version.cuda)
print("cuda available:", torch.cuda.is_available())
if torch.cuda.is_available():
    for i in range(torch.cuda.device_count()):
        p = torch.cuda.get_device_properties(i)
        print(f"  [{i}] {p.name} {p.total_memory // 2**20} MiB cc {p.major}.{p.minor}")
    x = torch.randn(1024, 1024, device="cuda")
    print("matmul ok:", (x @ x).sum().item() != 0)
