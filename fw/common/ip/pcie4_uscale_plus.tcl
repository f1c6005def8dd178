# Creates and configures the PCIe hard block IP `pcie4_uscale_plus_0` (AMD PG213) for the board in
# the config read before (fw/<board>/config.tcl, variables cfg_*). Nothing else: run by
# fw/common/vivado.tcl in its in-memory project. Endpoint, Gen3, cfg_pcie_lanes lanes (8: the
# 256-bit user interface at 250 MHz that rtl/pcie/pcie_us_if.sv is written for), PF0 only,
# BAR0 64-bit of the register map's size (formats/nic.toml: 4 MiB), MSI-X external with the
# table and PBA in BAR0 at the register map's offsets, our vendor and device IDs, class code
# 0x020000 (Ethernet controller).

create_ip -name pcie4_uscale_plus -vendor xilinx.com -library ip -module_name pcie4_uscale_plus_0 \
    -dir $cfg_ip_dir

set_property -dict [list \
    CONFIG.mode_selection {Advanced} \
    CONFIG.device_port_type {PCI_Express_Endpoint_device} \
    CONFIG.PCIE_BLK_LOCN $cfg_pcie_block \
    CONFIG.PL_LINK_CAP_MAX_LINK_SPEED {8.0_GT/s} \
    CONFIG.PL_LINK_CAP_MAX_LINK_WIDTH "X$cfg_pcie_lanes" \
    CONFIG.axisten_if_width {256_bit} \
    CONFIG.axisten_freq {250} \
    CONFIG.axisten_if_enable_client_tag {true} \
    CONFIG.AXISTEN_IF_CQ_ALIGNMENT_MODE {DWORD_Aligned} \
    CONFIG.AXISTEN_IF_CC_ALIGNMENT_MODE {DWORD_Aligned} \
    CONFIG.AXISTEN_IF_RQ_ALIGNMENT_MODE {DWORD_Aligned} \
    CONFIG.AXISTEN_IF_RC_ALIGNMENT_MODE {DWORD_Aligned} \
    CONFIG.AXISTEN_IF_RC_STRADDLE {false} \
    CONFIG.extended_tag_field {true} \
    CONFIG.pf0_dev_cap_max_payload {512_bytes} \
    CONFIG.vendor_id $cfg_vendor_id \
    CONFIG.PF0_DEVICE_ID $cfg_device_id \
    CONFIG.PF0_SUBSYSTEM_VENDOR_ID $cfg_vendor_id \
    CONFIG.PF0_SUBSYSTEM_ID $cfg_device_id \
    CONFIG.PF0_REVISION_ID {00} \
    CONFIG.PF0_CLASS_CODE {020000} \
    CONFIG.pf0_bar0_enabled {true} \
    CONFIG.pf0_bar0_type {Memory} \
    CONFIG.pf0_bar0_64bit {true} \
    CONFIG.pf0_bar0_prefetchable {false} \
    CONFIG.pf0_bar0_scale {Megabytes} \
    CONFIG.pf0_bar0_size $cfg_bar0_mib \
    CONFIG.pf0_bar2_enabled {false} \
    CONFIG.pf0_bar4_enabled {false} \
    CONFIG.pf0_msi_enabled {false} \
    CONFIG.PF0_INTERRUPT_PIN {NONE} \
    CONFIG.pf0_msix_enabled {true} \
    CONFIG.MSI_X_OPTIONS {MSI-X_External} \
    CONFIG.PF0_MSIX_CAP_TABLE_SIZE [format %03X [expr {$cfg_msix_vectors - 1}]] \
    CONFIG.PF0_MSIX_CAP_TABLE_BIR {BAR_1:0} \
    CONFIG.PF0_MSIX_CAP_TABLE_OFFSET $cfg_msix_table_offset \
    CONFIG.PF0_MSIX_CAP_PBA_BIR {BAR_1:0} \
    CONFIG.PF0_MSIX_CAP_PBA_OFFSET $cfg_msix_pba_offset \
] [get_ips pcie4_uscale_plus_0]
