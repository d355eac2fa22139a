"""A tiny training job for the capture tests, run as its own process.

    worker.py programmatic OUT RANK WORLD PORT   2-rank gloo job under capture.run
    worker.py serve STATE RANK WORLD [RING]      capture.serve(port=0); writes STATE/port<R>,
                                                 steps until STATE/stop appears (or 120 s);
                                                 with RING, runs 20 steps, writes STATE/done<R>,
                                                 then waits for STATE/stop
"""

import os
import sys
import time

import torch
import torch.distributed as dist

import tracehound.capture as thc


def model_and_step():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x, y = torch.randn(8, 16), torch.randn(8, 4)

    def step():
        loss = (model(x) - y).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        if dist.is_initialized():
            for p in model.parameters():
                dist.all_reduce(p.grad)
        opt.step()
    return step


def programmatic(out, rank, world, port):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("gloo", rank=rank, world_size=world)
    step = model_and_step()
    with thc.run(out, steps=3, warmup=2, tags={"model": "mlp", "test": "programmatic"}) as cap:
        for _ in range(7):
            step()
            cap.step()
    dist.barrier()
    dist.destroy_process_group()


def serve(state, rank, world, ring):
    os.environ.update(RANK=str(rank), WORLD_SIZE=str(world))
    step = model_and_step()
    cap = thc.serve(port=0, ring_steps=ring, tags={"test": "serve"})
    tmp = os.path.join(state, "port%d.tmp" % rank)
    with open(tmp, "w") as f:
        f.write(str(cap.server.port))
    os.replace(tmp, os.path.join(state, "port%d" % rank))
    stop = os.path.join(state, "stop")
    deadline = time.monotonic() + 120
    steps = 0
    while not os.path.exists(stop) and time.monotonic() < deadline:
        if ring and steps == 20:
            open(os.path.join(state, "done%d" % rank), "w").close()
            time.sleep(0.05)
            continue
        step()
        time.sleep(0.005)
        cap.step()
        steps += 1
    cap.close()


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "programmatic":
        programmatic(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))
    else:
        serve(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]),
              int(sys.argv[5]) if len(sys.argv) > 5 else 0)
