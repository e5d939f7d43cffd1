#!/usr/bin/env python3
"""Writes the recorded-style /sys trees under tests/data/rdma/ (run from anywhere; idempotent).

Each tree models one host's /sys/class/infiniband as the kernel lays it out, with the values
of a public ibstat / ibstatus / ibv_devinfo output in ../recorded/rdma/ (README.md says
which). PCI addresses, NUMA nodes, GIDs and counters are synthetic where the fixture lacks them.
"""
import os
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
STATE = {"ACTIVE": "4: ACTIVE", "DOWN": "1: DOWN", "INIT": "2: INIT"}
PHYS = {"LinkUp": "5: LinkUp", "Disabled": "3: Disabled", "Polling": "2: Polling"}
SPEED = {10: "SDR", 40: "QDR", 100: "EDR", 200: "HDR", 400: "NDR"}
COUNTERS = ["symbol_error", "link_downed", "link_error_recovery", "port_rcv_errors",
            "port_rcv_remote_physical_errors", "port_xmit_discards", "local_link_integrity_errors",
            "excessive_buffer_overrun_errors", "port_rcv_constraint_errors", "port_xmit_constraint_errors",
            "VL15_dropped", "port_xmit_data", "port_rcv_data"]

# A subset of what mlx5 exposes under ports/N/hw_counters/: request counts beside the error ones.
HW_COUNTERS = ["rx_write_requests", "rx_read_requests", "out_of_buffer", "out_of_sequence", "duplicate_request",
               "rnr_nak_retry_err", "packet_seq_err", "implied_nak_seq_err", "local_ack_timeout_err",
               "rx_icrc_encapsulated", "np_cnp_sent", "rp_cnp_handled"]


def put(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text + "\n")


def port_tree(pdir, p):
    rate = p["rate"]
    put(f"{pdir}/state", STATE[p.get("state", "ACTIVE")])
    put(f"{pdir}/phys_state", PHYS[p.get("phys", "LinkUp")])
    # Ethernet ports print the speed name too on mlx5 (e.g. "100 Gb/sec (4X EDR)").
    put(f"{pdir}/rate", f"{rate} Gb/sec ({p.get('width', 4)}X {SPEED.get(rate // p.get('width', 4) * 4, '')})".replace(" )", ")"))
    put(f"{pdir}/link_layer", p["ll"])
    if "mtu" in p:
        put(f"{pdir}/active_mtu", p["mtu"])
    gids = p.get("gids")
    if gids is None:
        if p["ll"] == "InfiniBand":
            gids = [("fe80:0000:0000:0000:" + p["guid"], "IB/RoCE v1")]
        else:
            # A RoCE port with an IPv4 address: v1 and v2 GIDs for link-local and for the address.
            gids = [("fe80:0000:0000:0000:" + p["guid"], "IB/RoCE v1"), ("fe80:0000:0000:0000:" + p["guid"], "RoCE v2"),
                    ("0000:0000:0000:0000:0000:ffff:0a00:0001", "IB/RoCE v1"), ("0000:0000:0000:0000:0000:ffff:0a00:0001", "RoCE v2")]
    for i in range(max(4, len(gids))):
        g, t = gids[i] if i < len(gids) else ("0000:0000:0000:0000:0000:0000:0000:0000", "")
        put(f"{pdir}/gids/{i}", g)
        put(f"{pdir}/gid_attrs/types/{i}", t)
    for c in COUNTERS:
        put(f"{pdir}/counters/{c}", str(p.get("counters", {}).get(c, 0)))
    # mlx5's per-port hardware (transport) counters, names as drivers/infiniband/hw/mlx5/counters.c
    # writes them; on the RoCE ports only here (the fixtures record none; values synthetic).
    if p["ll"] == "Ethernet":
        for c in HW_COUNTERS:
            put(f"{pdir}/hw_counters/{c}", "0")


def host(name, devs):
    root = os.path.join(HERE, name)
    shutil.rmtree(root, ignore_errors=True)
    for d in devs:
        bus = d["bus"]
        pcidir = f"sys/devices/pci0000:{bus[5:7]}/0000:{bus[5:7]}:00.0/{bus}"
        put(f"{root}/{pcidir}/numa_node", str(d.get("numa", 0)))
        if d.get("vf"):
            os.symlink("../0000:" + bus[5:7] + ":00.0", f"{root}/{pcidir}/physfn")
        cls = f"{root}/sys/class/infiniband/{d['name']}"
        os.makedirs(cls, exist_ok=True)
        os.symlink(os.path.relpath(f"{root}/{pcidir}", cls), f"{cls}/device")
        put(f"{cls}/fw_ver", d["fw"])
        for n, p in enumerate(d["ports"], start=1):
            p.setdefault("guid", f"{d.get('guid', 'b83f:d203:00a0')}:{n:04x}")
            port_tree(f"{cls}/ports/{n}", p)


def ib(rate=400, **kw):
    return dict(rate=rate, ll="InfiniBand", **kw)


def eth(rate=100, **kw):
    return dict(rate=rate, ll="Ethernet", **kw)


def bus(i):
    return f"0000:{0x18 + 0x10 * i:02x}:00.0"


# ibstat-gpud-h100-node-12ca-3-eth-ports-down-disabled.txt: 8 NDR InfiniBand, one 100G
# Ethernet up, three Ethernet Down/Disabled at 40.
h100 = []
for i in range(12):
    if i in (1, 2, 7, 8):
        p = eth(100) if i == 1 else eth(40, state="DOWN", phys="Disabled")
        fw = "22.38.1002"
    else:
        p, fw = ib(400), "28.39.1002"
    h100.append(dict(name=f"mlx5_{i}", bus=bus(i), numa=0 if i < 6 else 1, fw=fw, ports=[p]))
host("h100-12ca-3-eth-down", h100)

# ibstat-bluefield3-ib-edr-state-down-physical-linkup-no-sm.txt: cable up, no subnet manager.
host("bluefield3-down-linkup", [dict(name=f"mlx5_{i}", bus=bus(i), fw="32.47.1088",
                                     ports=[ib(100, state="DOWN", phys="LinkUp")]) for i in range(2)])

# ibstatus-gpud-azure-a100-8xhdr-all-active.txt: Azure ND A100 v4, SR-IOV VFs, mlx5_8 at QDR.
host("azure-a100-8hdr-1qdr", [dict(name=f"mlx5_{i}", bus=f"{i + 0x101:04x}:00:02.0", vf=True, numa=i // 4, fw="20.41.1000",
                                    ports=[ib(40 if i == 8 else 200)]) for i in range(9)])

# ibv_devinfo-dell-8xCX7-ib-all-active-deepep397.txt: 8 CX-7 InfiniBand, active_mtu 4096.
# Written twice: at NDR 400, and at 200 (the reporter found the NICs limited to 200).
for rate, name in ((400, "dell-8cx7-ndr400"), (200, "dell-8cx7-ndr-at-200")):
    host(name, [dict(name=f"mlx5_{i}", bus=bus(i), numa=0 if i < 6 else 1, fw="28.41.1000",
                     ports=[ib(rate, mtu="4096")]) for i in (0, 3, 4, 5, 6, 9, 10, 11)])

# Every fault on one host, for the integration test (synthetic, after the shapes above):
#   mlx5_4 an SR-IOV VF among PFs, mlx5_5 RoCE without a RoCE v2 GID, mlx5_7 NDR trained
#   down to HDR, mlx5_8 down (Polling); mlx5_0 is where tests make error counters rise;
#   mlx5_9 has two ports (places mlx5_9 and mlx5_9:2); mlx5_1,2,3,6,9 are healthy.
mixed = []
for i in range(10):
    fw = "28.39.1002"
    ports = [ib(400)]
    vf = False
    if i == 4:
        vf = True
    elif i == 5:
        ports = [eth(400, gids=[("fe80:0000:0000:0000:b83f:d203:00a0:0005", "IB/RoCE v1")])]
    elif i == 6:
        ports = [eth(400)]
    elif i == 7:
        ports = [ib(200)]
    elif i == 8:
        ports = [ib(40, state="DOWN", phys="Polling")]
    elif i == 9:
        ports = [ib(400), ib(400)]
    mixed.append(dict(name=f"mlx5_{i}", bus=bus(i), vf=vf, numa=0 if i < 5 else 1, fw=fw, ports=ports))
host("mixed-faults", mixed)
