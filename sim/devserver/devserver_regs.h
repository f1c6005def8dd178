/* SPDX-License-Identifier: MIT */
/*
 * The device server's own PCI configuration-space layout (sim/devserver/devserver.cpp,
 * docs/devserver.md), shared with the programs that read it from inside the guest.
 *
 * Besides the standard header (the register map's vendor / device ids, class, BAR0) and the
 * MSI-X capability, the device server carries a vendor-specific capability with counters it
 * observes on the NIC's buses: the PCI-side equivalent of nicsim_get_stats, so a test running
 * in the guest can count doorbells and DMA the way the sim tests do. It is a property of the
 * device server, not of the NIC: a board has no such capability (a reader finds no
 * DEVSERVER_CAP_TAG and must do without).
 *
 * Reading the tag dword latches every counter; the counters read afterwards are that snapshot
 * (one 64-bit counter takes two 32-bit configuration reads, between which the NIC runs on).
 */
#ifndef NDK_DEVSERVER_REGS_H
#define NDK_DEVSERVER_REGS_H

#define DEVSERVER_CAP_MSIX	0x40	    /* MSI-X capability (id 0x11) */
#define DEVSERVER_CAP_VENDOR	0x50	    /* vendor-specific capability (id 0x09) */
#define DEVSERVER_CAP_TAG	0x54	    /* reads DEVSERVER_TAG; latches the counters */
#define DEVSERVER_TAG		0x534b444eu /* "NDKS" */
#define DEVSERVER_COUNTERS	0x58	    /* 64-bit little-endian counters, in this order: */
#define DEVSERVER_CNT_CYCLES	0	    /* NIC clock cycles run */
#define DEVSERVER_CNT_MMIO_WR	1	    /* BAR0 writes (32-bit AXI4-Lite writes) */
#define DEVSERVER_CNT_MMIO_RD	2	    /* BAR0 reads */
#define DEVSERVER_CNT_SQ_DB	3	    /* SQ producer-index doorbells */
#define DEVSERVER_CNT_RQ_DB	4	    /* RQ producer-index doorbells */
#define DEVSERVER_CNT_CQ_DB	5	    /* CQ doorbells (CI_ARM, MODERATION) */
#define DEVSERVER_CNT_DMA_RD	6	    /* DMA read bursts served from guest RAM */
#define DEVSERVER_CNT_DMA_RD_B	7	    /* ... their bytes */
#define DEVSERVER_CNT_DMA_WR	8	    /* DMA write bursts into guest RAM */
#define DEVSERVER_CNT_DMA_WR_B	9	    /* ... their bytes */
#define DEVSERVER_CNT_REFUSED	10 /* DMA bursts refused (outside guest RAM, bus master off) */
#define DEVSERVER_CNT_MSIX	11 /* MSI-X messages the NIC wrote (not delivered: polling) */
#define DEVSERVER_CNT_FRAMES_TX 12 /* frames the NIC's port sent */
#define DEVSERVER_CNT_FRAMES_RX 13 /* frames the NIC's port received */
#define DEVSERVER_NUM_COUNTERS	14

#endif /* NDK_DEVSERVER_REGS_H */
